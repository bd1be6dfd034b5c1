-- intervals keep the fields they were written with, order by span, and meet as keys when equal
CREATE TABLE iv (id int, i interval);
INSERT INTO iv VALUES (1, '1 mon 2 days 03:04:05'), (2, '-1 year 30 days'), (3, '36 hours'), (4, '1 mon'), (5, '30 days');
SELECT id, i, i + interval '1 day' AS plus FROM iv ORDER BY id;
SELECT interval '1 mon 2 days', interval '1 year 2 mons', interval '-2 hours';
SELECT count(DISTINCT i) FROM iv WHERE id >= 4;
SELECT a.id, b.id FROM iv a JOIN iv b ON a.i = b.i WHERE a.id >= 4 AND b.id >= 4 ORDER BY 1, 2;
CREATE INDEX iv_i ON iv (i);
SELECT id FROM iv WHERE i = interval '30 days' ORDER BY id;
SELECT id, i FROM iv ORDER BY i, id;
