package dev.tributary.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.auth.Roles;
import dev.tributary.server.auth.ScramClient;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The console's sessions end when idle for {@link ConsoleLogins#IDLE_NANOS} (a use keeps one
 * open) and when more recently used ones reach the limit (three here), on a test clock.
 */
class ConsoleLoginsTest {
    private final AtomicLong now = new AtomicLong();
    private final ConsoleLogins logins = new ConsoleLogins(now::get, 3);
    private final Roles roles = new Roles(new SecureRandom());

    ConsoleLoginsTest() {
        roles.create("ann", true, roles.verifierOf("secret"));
    }

    private String logIn() {
        ScramClient client = new ScramClient("secret", new SecureRandom());
        ConsoleLogins.Started started = logins.first(roles, "ann", client.clientFirst());
        ConsoleLogins.LoggedIn in = logins.last(started.exchange(), client.clientFinal(started.serverFirst()));
        client.checkServerFinal(in.serverFinal());
        return in.token();
    }

    @Test
    void aSessionEndsWhenIdleAndAUseKeepsItOpen() {
        String used = logIn();
        String idle = logIn();
        now.addAndGet(ConsoleLogins.IDLE_NANOS - 1);
        assertThat(logins.role(roles, used)).contains("ann");
        now.addAndGet(2);
        assertThat(logins.role(roles, idle)).as("idle for the whole limit").isEmpty();
        assertThat(logins.role(roles, used)).as("used a moment ago").contains("ann");
        now.addAndGet(ConsoleLogins.IDLE_NANOS);
        assertThat(logins.role(roles, used)).isEmpty();
    }

    @Test
    void theLeastRecentlyUsedSessionGoesPastTheLimit() {
        String first = logIn();
        List<String> others = new ArrayList<>();
        for (int i = 1; i < 3; i++) {
            now.incrementAndGet();
            others.add(logIn());
        }
        // a use makes the first the most recent: the next login ends the second instead
        assertThat(logins.role(roles, first)).contains("ann");
        now.incrementAndGet();
        logIn();
        assertThat(logins.role(roles, first)).contains("ann");
        assertThat(logins.role(roles, others.get(0))).isEmpty();
        assertThat(logins.role(roles, others.get(1))).contains("ann");
    }
}
