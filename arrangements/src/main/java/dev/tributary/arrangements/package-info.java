/**
 * Batches, the batcher, spines (an LSM of batches with fueled merges), cursors, trace handles and logical and physical compaction: indexed, shared, time-aware copies of collections. Arrives with the arrangements issue.
 */
package dev.tributary.arrangements;
