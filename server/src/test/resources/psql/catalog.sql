-- psql's describe commands against the system catalogs
CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2) DEFAULT 0, placed timestamptz DEFAULT now());
CREATE INDEX orders_by_customer ON orders (customer);
CREATE VIEW big AS SELECT * FROM orders WHERE amount > 100;
CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;
CREATE INDEX per_customer_key ON per_customer (customer);
\d
\dt
\dv
\dm
\di
\d orders
\d big
\d per_customer
\d orders_by_customer
\d nosuch
SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY relname;
SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1;
SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_name = 'orders' ORDER BY ordinal_position;
SHOW search_path;
SET application_name = 'catalog test';
SELECT setting FROM pg_settings WHERE name = 'application_name';
SHOW nosuch;
INSERT INTO pg_class (relname) VALUES ('x');
CREATE MATERIALIZED VIEW m AS SELECT relname FROM pg_class;
\d orders_pkey
\di orders*
\dt pg_catalog.pg_class
\dv information_schema.tables
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname IN ('orders_pkey', 'big') ORDER BY 1, a.attnum;
SELECT ARRAY(SELECT relname FROM pg_class WHERE relkind = 'i' AND relnamespace = 'public'::regnamespace ORDER BY 1);
\d+ orders
\dn
\du
