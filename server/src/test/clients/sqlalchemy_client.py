"""SQLAlchemy (its 2.0-style API, over psycopg2) against Tributary: an ORM model with a serial key,
a UNIQUE column and a server default, created with create_all, rows added and changed through a
Session, then reflected back (tables, columns, keys, constraints, indexes). Usage:
sqlalchemy_client.py PORT. Exits non-zero at the first check that fails."""
import sys
import sqlalchemy as sa
from sqlalchemy.orm import declarative_base, Session

port = sys.argv[1]
engine = sa.create_engine(f"postgresql+psycopg2://tributary@127.0.0.1:{port}/tributary", future=True)

def check(what, got, want):
    if got != want:
        print(f"FAIL {what}: got {got!r}, want {want!r}")
        sys.exit(1)
    print(f"ok {what}")

with engine.connect() as c:
    check("connect and SELECT 1", c.execute(sa.text("SELECT 1")).scalar(), 1)

Base = declarative_base()

class User(Base):
    __tablename__ = "users"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(50), nullable=False, unique=True)
    score = sa.Column(sa.Numeric(10, 2))
    created = sa.Column(sa.DateTime(timezone=True), server_default=sa.func.now())
    __table_args__ = (sa.Index("users_score", "score"),)

Base.metadata.create_all(engine)
with Session(engine) as s:
    s.add_all([User(name="ann", score=1.5), User(name="bob")])
    s.commit()
    ann = s.query(User).filter_by(name="ann").one()
    check("serial key assigned", ann.id, 1)
    check("server default filled", ann.created is not None, True)
    ann.score = 3
    s.commit()
    check("ORM update", [(u.id, u.name, None if u.score is None else float(u.score)) for u in s.query(User).order_by(User.id)],
          [(1, "ann", 3.0), (2, "bob", None)])
    s.add(User(name="ann"))
    try:
        s.commit()
        check("duplicate name refused", "committed", "IntegrityError")
    except sa.exc.IntegrityError as e:
        check("duplicate name refused", e.orig.pgcode, "23505")
        s.rollback()
    with s.begin_nested():
        s.add(User(name="cy"))
    s.commit()
    check("savepoint (begin_nested)", s.query(User).count(), 3)

insp = sa.inspect(engine)
check("get_table_names", insp.get_table_names(), ["users"])
cols = insp.get_columns("users")
check("get_columns names", [c["name"] for c in cols], ["id", "name", "score", "created"])
check("get_columns serial default", "nextval('users_id_seq'::regclass)" in str(cols[0]["default"]), True)
check("get_columns nullable", [c["nullable"] for c in cols], [False, False, True, True])
check("get_pk_constraint", insp.get_pk_constraint("users")["constrained_columns"], ["id"])
check("get_unique_constraints", [u["column_names"] for u in insp.get_unique_constraints("users")], [["name"]])
check("get_indexes", sorted((i["name"], tuple(i["column_names"]), i["unique"]) for i in insp.get_indexes("users")),
      [("users_name_key", ("name",), True), ("users_score", ("score",), False)])
check("get_foreign_keys", insp.get_foreign_keys("users"), [])
t = sa.Table("users", sa.MetaData(), autoload_with=engine)
with engine.connect() as c:
    check("reflected table query", c.execute(sa.select(sa.func.count()).select_from(t)).scalar(), 3)

# a uuid key with a server default, comments from the model, a migration that fails half way
from sqlalchemy.dialects.postgresql import UUID
md = sa.MetaData()
things = sa.Table("things", md, sa.Column("id", UUID(as_uuid=True), primary_key=True, server_default=sa.text("gen_random_uuid()")),
                  sa.Column("name", sa.Text, nullable=False, comment="the name"), comment="some things")
md.create_all(engine)
with engine.begin() as c:
    new_id = c.execute(things.insert().values(name="a").returning(things.c.id)).scalar()
    check("uuid server default", c.execute(sa.select(things.c.name).where(things.c.id == new_id)).scalar(), "a")
insp = sa.inspect(engine)
check("get_table_comment", insp.get_table_comment("things")["text"], "some things")
check("column comment", [c.get("comment") for c in insp.get_columns("things")], [None, "the name"])
try:
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE half_done (a int)"))
        c.execute(sa.text("ALTER TABLE things ALTER COLUMN name DROP NOT NULL"))
        c.execute(sa.text("SELECT 1 / 0"))
except sa.exc.DataError:
    pass
check("a failed migration's CREATE TABLE rolled back", sa.inspect(engine).has_table("half_done"), False)

# a model in a schema of its own: qualified DDL, DML and reflection
with engine.begin() as c:
    c.execute(sa.text("CREATE SCHEMA IF NOT EXISTS app"))
md = sa.MetaData(schema="app")
members = sa.Table("members", md, sa.Column("id", sa.Integer, primary_key=True), sa.Column("name", sa.String(50), unique=True))
visits = sa.Table("visits", md, sa.Column("id", sa.Integer, primary_key=True), sa.Column("member_id", sa.ForeignKey("app.members.id")))
md.create_all(engine)
with engine.begin() as c:
    c.execute(members.insert(), [{"name": "ann"}, {"name": "bob"}])
    c.execute(visits.insert(), [{"member_id": 2}])
    check("schema-qualified join", c.execute(sa.select(members.c.name).join(visits)).scalars().all(), ["bob"])
insp = sa.inspect(engine)
check("get_schema_names", "app" in insp.get_schema_names(), True)
check("get_table_names(schema)", insp.get_table_names(schema="app"), ["members", "visits"])
check("get_table_names of public leaves app out", "members" in insp.get_table_names(), False)
fk = insp.get_foreign_keys("visits", schema="app")[0]
check("foreign key across the schema", (fk["referred_schema"], fk["referred_table"], fk["referred_columns"]), ("app", "members", ["id"]))
check("reflected in its schema", sa.Table("members", sa.MetaData(), autoload_with=engine, schema="app").c.keys(), ["id", "name"])
md.drop_all(engine)
check("drop_all in the schema", sa.inspect(engine).get_table_names(schema="app"), [])
print("sqlalchemy done")
