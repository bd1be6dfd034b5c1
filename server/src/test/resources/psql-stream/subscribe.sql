-- a SUBSCRIBE through COPY streams changes made by another connection until psql is interrupted
-- (Ctrl-C: psql sends a CancelRequest, the server ends the COPY with 57014, and psql stops the script)
COPY (SUBSCRIBE t) TO STDOUT;
SELECT 'not reached';
