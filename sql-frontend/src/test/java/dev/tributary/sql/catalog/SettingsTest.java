package dev.tributary.sql.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import org.junit.jupiter.api.Test;

class SettingsTest {
    private static String set(String name, String value) {
        return Settings.validate(Settings.find(name).orElseThrow(), value, 0);
    }

    private static void refused(String state, String name, String value) {
        assertThatThrownBy(() -> set(name, value)).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo(state));
    }

    @Test
    void namesAreCaseInsensitiveAndCanonical() {
        assertThat(Settings.find("datestyle").orElseThrow().name()).isEqualTo("DateStyle");
        assertThat(Settings.find("TIMEZONE").orElseThrow().name()).isEqualTo("TimeZone");
        assertThat(Settings.find("nosuch")).isEmpty();
        assertThat(Settings.isCustom("myext.flag")).isTrue();
        assertThat(Settings.isCustom("flag")).isFalse();
        assertThat(Settings.all()).extracting(Settings.Setting::name).startsWith("application_name", "asof_join", "client_encoding", "client_min_messages", "DateStyle");
    }

    @Test
    void valuesAreCheckedAndNormalised() {
        assertThat(set("standard_conforming_strings", "true")).isEqualTo("on");
        assertThat(set("extra_float_digits", " 3 ")).isEqualTo("3");
        assertThat(set("timezone", "utc")).isEqualTo("UTC");
        assertThat(set("search_path", "\"$user\",public")).isEqualTo("\"$user\", public");
        assertThat(set("client_min_messages", "WARNING")).isEqualTo("warning");
        assertThat(set("application_name", "anything at all")).isEqualTo("anything at all");
        refused("22023", "standard_conforming_strings", "off");
        refused("22023", "standard_conforming_strings", "maybe");
        refused("22023", "extra_float_digits", "x");
        refused("22023", "TimeZone", "Europe/Paris");
        refused("55P02", "server_version", "1");
    }
}
