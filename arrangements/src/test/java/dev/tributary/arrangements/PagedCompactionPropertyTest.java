package dev.tributary.arrangements;

/** {@link CompactionPropertyTest}'s properties with every merged batch held in tiny parts, paged out and in. */
@PagedTraces.Tiny
class PagedCompactionPropertyTest extends CompactionPropertyTest {}
