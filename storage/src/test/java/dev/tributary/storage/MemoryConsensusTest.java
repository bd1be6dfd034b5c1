package dev.tributary.storage;

class MemoryConsensusTest extends ConsensusContract {
    @Override
    protected Consensus open() {
        return new MemoryConsensus();
    }
}
