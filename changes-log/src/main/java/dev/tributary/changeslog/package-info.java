/**
 * Change streams: SUBSCRIBE output (snapshot, progress, envelopes), {@code CHANGES(x AS OF t)}, and reading a collection as of a past time. Arrives with the history issue.
 */
package dev.tributary.changeslog;
