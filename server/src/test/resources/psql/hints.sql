-- a misspelt column gets PostgreSQL's "Perhaps you meant" hint: the nearest one or two columns
CREATE TABLE items (price numeric(10,2), name text);
CREATE TABLE t1 (name int, nbme int);
CREATE TABLE t2 (name int);
SELECT nme FROM items;
SELECT prce FROM items;
SELECT nme FROM t1;
SELECT nme FROM items, t2;
SELECT nme FROM items i, t2 x;
SELECT t2.nme FROM items, t2;
SELECT zzzz FROM items;
SELECT pr FROM items;
SELECT nam FROM items, t1, t2;
SELECT price * 'x' FROM items;
