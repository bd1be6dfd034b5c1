package dev.tributary.server.auth;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * An access control list, as PostgreSQL keeps one per object: items {@code grantee=privileges/grantor},
 * at most one per (grantee, grantor), none empty. PUBLIC is the grantee {@link #PUBLIC}. Immutable:
 * every change returns a new list.
 *
 * <p>What a role may do is the union of the items whose grantee it has the privileges of (or
 * PUBLIC); the owner's own rights are an item like any other (it can revoke them from itself), but
 * an owner always holds every grant option, so it can give them back.
 */
public record Acl(List<Item> items) {
    /** The grantee that stands for PUBLIC: shown as an empty name. */
    public static final String PUBLIC = "";

    /** {@code privileges} (a set of {@link Privilege#bit()}s), of which {@code grantable} may be passed on, given to {@code grantee} by {@code grantor}. */
    public record Item(String grantee, String grantor, int privileges, int grantable) {
        /** PostgreSQL's text for it: {@code grantee=letters/grantor}, with quotes around names that need them. */
        public String text() {
            return name(grantee) + "=" + Privilege.letters(privileges, grantable) + "/" + name(grantor);
        }

        private static String name(String role) {
            if (role.isEmpty()) return "";
            boolean plain = role.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_');
            return plain ? role : "\"" + role.replace("\"", "\"\"") + "\"";
        }
    }

    public Acl {
        items = List.copyOf(items);
    }

    /** The ACL an object starts with: its owner holds {@code all} (granted by itself), and PUBLIC {@code publicBits}. */
    public static Acl initial(String owner, int all, int publicBits) {
        List<Item> items = new ArrayList<>();
        items.add(new Item(owner, owner, all, 0));
        if (publicBits != 0) items.add(new Item(PUBLIC, owner, publicBits, 0));
        return new Acl(items);
    }

    /** The privileges (index 0) and grant options (index 1) of every item whose grantee {@code holds} accepts. */
    public int[] held(Predicate<String> holds) {
        int p = 0;
        int g = 0;
        for (Item i : items) {
            if (holds.test(i.grantee())) {
                p |= i.privileges();
                g |= i.grantable();
            }
        }
        return new int[] {p, g};
    }

    /** {@code grantee} given {@code bits} by {@code grantor}, with grant option if {@code grantable}. */
    public Acl grant(String grantor, String grantee, int bits, boolean grantable) {
        List<Item> out = new ArrayList<>();
        boolean merged = false;
        for (Item i : items) {
            if (i.grantee().equals(grantee) && i.grantor().equals(grantor)) {
                out.add(new Item(grantee, grantor, i.privileges() | bits, i.grantable() | (grantable ? bits : 0)));
                merged = true;
            } else {
                out.add(i);
            }
        }
        if (!merged) out.add(new Item(grantee, grantor, bits, grantable ? bits : 0));
        return new Acl(out);
    }

    /**
     * {@code bits} taken from what {@code grantor} gave {@code grantee} (only their grant options
     * when {@code optionOnly}). What the grantee passed on using a grant option it loses goes too
     * with {@code cascade}; without it, 2BP01 when there is such a grant.
     */
    public Acl revoke(String grantor, String grantee, int bits, boolean optionOnly, boolean cascade) {
        List<Item> out = new ArrayList<>();
        int lostOptions = 0;
        for (Item i : items) {
            if (i.grantee().equals(grantee) && i.grantor().equals(grantor)) {
                int grantable = i.grantable() & ~bits;
                int privileges = optionOnly ? i.privileges() : i.privileges() & ~bits;
                lostOptions = i.grantable() & ~grantable;
                if (privileges != 0) out.add(new Item(grantee, grantor, privileges, grantable & privileges));
            } else {
                out.add(i);
            }
        }
        Acl result = new Acl(out);
        if (lostOptions != 0 && !grantee.equals(grantor)) {
            // what the grantee still may pass on through another grantor keeps its grants standing
            int still = result.held(g -> g.equals(grantee))[1];
            int gone = lostOptions & ~still;
            for (Item i : List.copyOf(result.items())) {
                if (i.grantor().equals(grantee) && (i.privileges() & gone) != 0) {
                    if (!cascade) throw new SqlException("2BP01", "dependent privileges exist", 0, "Use CASCADE to revoke them too.");
                    result = result.revoke(grantee, i.grantee(), gone, false, true);
                }
            }
        }
        return result;
    }

    /** This ACL with role {@code from} replaced by {@code to} as grantee and grantor (ALTER ... OWNER TO), items that meet merged. */
    public Acl renamed(String from, String to) {
        Acl out = new Acl(List.of());
        for (Item i : items) {
            String grantee = i.grantee().equals(from) ? to : i.grantee();
            String grantor = i.grantor().equals(from) ? to : i.grantor();
            out = out.grant(grantor, grantee, i.privileges(), false);
            if (i.grantable() != 0) out = out.grant(grantor, grantee, i.grantable(), true);
        }
        return out;
    }

    /** This ACL without any item granted to or by {@code role} (what DROP OWNED would leave). */
    public Acl without(String role) {
        return new Acl(items.stream().filter(i -> !i.grantee().equals(role) && !i.grantor().equals(role)).toList());
    }

    /** Whether {@code role} appears in it as grantee or grantor. */
    public boolean mentions(String role) {
        for (Item i : items) if (i.grantee().equals(role) || i.grantor().equals(role)) return true;
        return false;
    }

    /** Each item's text, in order. */
    public List<String> texts() {
        return items.stream().map(Item::text).toList();
    }

    /** The ACL as one line for the durable catalog: items {@code grantee\tgrantor\tprivileges\tgrantable}, separated by newlines. */
    public String encode() {
        StringBuilder b = new StringBuilder();
        for (Item i : items) {
            if (!b.isEmpty()) b.append('\n');
            b.append(escape(i.grantee())).append('\t').append(escape(i.grantor())).append('\t').append(i.privileges()).append('\t').append(i.grantable());
        }
        return b.toString();
    }

    /** The ACL {@link #encode} wrote. */
    public static Acl decode(String text) {
        List<Item> out = new ArrayList<>();
        if (text.isEmpty()) return new Acl(out);
        for (String line : text.split("\n")) {
            String[] f = line.split("\t", -1);
            if (f.length != 4) throw new IllegalArgumentException("not an ACL item: '" + line + "'");
            out.add(new Item(unescape(f[0]), unescape(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3])));
        }
        return new Acl(out);
    }

    /** A role name with backslash, tab and newline escaped, so it fits a tab-separated line. */
    public static String escape(String name) {
        return name.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    /** The name {@link #escape} escaped. */
    public static String unescape(String text) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                char n = text.charAt(++i);
                b.append(n == 't' ? '\t' : n == 'n' ? '\n' : n);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
