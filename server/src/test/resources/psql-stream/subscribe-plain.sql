-- a plain SUBSCRIBE streams as COPY (SUBSCRIBE ...) TO STDOUT does, until psql is interrupted
SUBSCRIBE t;
SELECT 'not reached';
