package dev.tributary.sql.catalog;

import java.util.List;

/**
 * Who the session is and what roles may do, as the system catalogs show it and the privilege
 * inquiry functions ({@code has_table_privilege}, {@code has_schema_privilege},
 * {@code pg_has_role}) answer it. The server implements it over its roles and access control
 * lists; {@link #BOOTSTRAP_ONLY} is a database with its bootstrap superuser alone.
 *
 * <p>ACL items are PostgreSQL's text form, {@code grantee=privileges/grantor} with an empty
 * grantee for PUBLIC and {@code *} after a privilege held with grant option; a null ACL is the
 * default one (the owner holds every privilege).
 */
public interface Access {
    /** A role as pg_roles shows it. */
    record RoleInfo(String name, boolean superuser, boolean inherit, boolean createRole, boolean createDb, boolean login,
                    boolean replication, boolean bypassRls, boolean hasPassword) {}

    /** Membership of {@code member} in {@code role}, granted by {@code grantor}, as pg_auth_members shows it. */
    record Membership(String role, String member, String grantor, boolean admin) {}

    /** The role privileges are checked against now ({@code current_user}: changed by SET ROLE). */
    String currentUser();

    /** The role the session authenticated as, or SET SESSION AUTHORIZATION chose ({@code session_user}). */
    String sessionUser();

    /** Every role, by name. */
    List<RoleInfo> roles();

    /** Every role membership. */
    List<Membership> memberships();

    /** The owner of relation {@code id}. */
    String owner(long id);

    /** Relation {@code id}'s ACL items, or null for the default ACL. */
    List<String> acl(long id);

    /** Schema {@code name}'s ACL items (never the default: a schema's is always shown). */
    List<String> schemaAcl(String name);

    /**
     * Whether {@code role} holds every one of {@code privileges} (PostgreSQL's comma-separated list,
     * {@code SELECT}, {@code INSERT WITH GRANT OPTION}, ...) on relation {@code id}; 42704 for an
     * unknown role, 22023 for an unknown privilege.
     */
    boolean hasTablePrivilege(String role, long id, String privileges);

    /** {@link #hasTablePrivilege} for schema {@code name} ({@code USAGE}, {@code CREATE}). */
    boolean hasSchemaPrivilege(String role, String name, String privileges);

    /** {@code pg_has_role(role, target, mode)}: mode {@code MEMBER}, {@code USAGE} or {@code SET} (with {@code WITH ADMIN OPTION}). */
    boolean hasRole(String role, String target, String mode);

    /** A database with only its bootstrap superuser: it owns everything and may do everything. */
    Access BOOTSTRAP_ONLY = new Access() {
        @Override
        public String currentUser() {
            return SystemCatalog.OWNER_NAME;
        }

        @Override
        public String sessionUser() {
            return SystemCatalog.OWNER_NAME;
        }

        @Override
        public List<RoleInfo> roles() {
            return List.of(new RoleInfo(SystemCatalog.OWNER_NAME, true, true, true, true, true, true, true, false));
        }

        @Override
        public List<Membership> memberships() {
            return List.of();
        }

        @Override
        public String owner(long id) {
            return SystemCatalog.OWNER_NAME;
        }

        @Override
        public List<String> acl(long id) {
            return null;
        }

        @Override
        public List<String> schemaAcl(String name) {
            return List.of();
        }

        @Override
        public boolean hasTablePrivilege(String role, long id, String privileges) {
            return true;
        }

        @Override
        public boolean hasSchemaPrivilege(String role, String name, String privileges) {
            return true;
        }

        @Override
        public boolean hasRole(String role, String target, String mode) {
            return true;
        }
    };
}
