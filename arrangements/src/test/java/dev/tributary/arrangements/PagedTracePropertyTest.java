package dev.tributary.arrangements;

/** {@link TracePropertyTest}'s properties with every merged batch held in tiny parts, paged out and in. */
@PagedTraces.Tiny
class PagedTracePropertyTest extends TracePropertyTest {}
