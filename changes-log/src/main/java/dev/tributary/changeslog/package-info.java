/**
 * Change streams: a collection's changes delivered once each, in time order, with a snapshot,
 * progress and an end ({@link dev.tributary.changeslog.ChangeStream}), and the upsert envelope over
 * them ({@link dev.tributary.changeslog.UpsertEnvelope}). The SQL forms (SUBSCRIBE options,
 * {@code CHANGES(x AS OF t)}, {@code SELECT ... AS OF}) arrive with the rest of the history issue.
 */
package dev.tributary.changeslog;
