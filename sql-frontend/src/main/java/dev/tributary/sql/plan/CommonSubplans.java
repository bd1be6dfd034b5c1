package dev.tributary.sql.plan;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Computes a subplan that occurs more than once in a plan once: every occurrence becomes a
 * {@link Plan.LetRef} to one {@link Plan.Let} at the plan's root, so that its operators (and the
 * arrangements they keep) exist once in the dataflow, their output going to each reader. A CTE
 * read twice (Nexmark's q5 reads its per-window counts for the rows and for their maximum) was
 * expanded, counted and arranged twice; PostgreSQL, too, computes a CTE read more than once only
 * once.
 *
 * <p>Plans are values, so equal subplans compute the same collection (every function is
 * deterministic, and {@code now()} is the statement's one time); a subplan is shared only if it
 * is closed (every {@code LetRef} in it refers to a {@code Let} inside it, so it means the same
 * at the root) and worth it: it holds a stateful or expanding operator, not only stateless row
 * steps (which the renderer fuses with their reader, and which cost less run twice than
 * materialized once).
 */
final class CommonSubplans {
    private CommonSubplans() {}

    /** Plans larger than this are left as they are: counting hashes every subplan, whose hash is its whole subtree's. */
    private static final int MAX_NODES = 2_000;

    static Plan share(Plan plan) {
        // the largest shared subplan first, then again on the result: a subplan inside one
        // already shared occurs once there, and is shared only if it also occurs elsewhere
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Map<Plan, Integer> counts = new HashMap<>();
            if (!count(plan, counts, new int[] {0})) return plan;
            Plan best = null;
            int bestSize = 0;
            for (Map.Entry<Plan, Integer> e : counts.entrySet()) {
                Plan p = e.getKey();
                if (e.getValue() < 2 || !worthSharing(p) || !Plans.freeRefs(p).isEmpty()) continue;
                int size = size(p);
                if (size > bestSize) {
                    best = p;
                    bestSize = size;
                }
            }
            if (best == null) return plan;
            int id = maxLetId(plan) + 1;
            // at the root, where every occurrence sees it (it is closed, so it means the same there)
            plan = new Plan.Let(id, best, replace(plan, best, new Plan.LetRef(id, best.types())));
        }
        return plan;
    }

    /** How many subplans one plan may share: each round counts the plan again. */
    private static final int MAX_ROUNDS = 16;

    /** Counts each subplan's occurrences; false once the plan has more than {@link #MAX_NODES} nodes. */
    private static boolean count(Plan plan, Map<Plan, Integer> counts, int[] nodes) {
        if (++nodes[0] > MAX_NODES) return false;
        if (!isLeaf(plan)) counts.merge(plan, 1, Integer::sum);
        boolean[] ok = {true};
        Plans.withInputs(plan, in -> {
            if (ok[0] && !count(in, counts, nodes)) ok[0] = false;
            return in;
        });
        return ok[0];
    }

    /** {@code plan} with every occurrence of {@code shared} replaced by {@code ref}. */
    private static Plan replace(Plan plan, Plan shared, Plan ref) {
        if (plan.equals(shared)) return ref;
        return Plans.withInputs(plan, in -> replace(in, shared, ref));
    }

    private static boolean isLeaf(Plan p) {
        return p instanceof Plan.Get || p instanceof Plan.IndexedGet || p instanceof Plan.Constant || p instanceof Plan.LetRef;
    }

    /** Whether {@code p} holds an operator that keeps state or makes rows: computing it once saves that work and that state. */
    private static boolean worthSharing(Plan p) {
        boolean here = switch (p) {
            case Plan.Reduce r -> true;
            case Plan.Join j -> true;
            case Plan.DeltaJoin d -> true;
            case Plan.Window w -> true;
            case Plan.Sessions s -> true;
            case Plan.PaneAggregate a -> true;
            case Plan.SessionAggregate a -> true;
            case Plan.FirstRows f -> true;
            case Plan.TopK t -> true;
            case Plan.Distinct d -> true;
            case Plan.Threshold t -> true;
            case Plan.FlatMap m -> true;
            case Plan.AsOfLookup a -> true;
            case Plan.Lookup l -> true;
            case Plan.AsofJoin a -> true;
            case Plan.Changes c -> true;
            case Plan.TemporalFilter t -> true;
            case Plan.EventTime e -> true;
            default -> false;
        };
        if (here) return true;
        boolean[] below = {false};
        Plans.withInputs(p, in -> {
            if (!below[0] && worthSharing(in)) below[0] = true;
            return in;
        });
        return below[0];
    }

    private static int maxLetId(Plan p) {
        int[] max = {p instanceof Plan.Let l ? l.id() : p instanceof Plan.LetRef r ? r.id() : -1};
        if (p instanceof Plan.LetRec r) for (int id : r.ids()) max[0] = Math.max(max[0], id);
        Plans.withInputs(p, in -> {
            max[0] = Math.max(max[0], maxLetId(in));
            return in;
        });
        return max[0];
    }

    private static int size(Plan p) {
        int[] n = {1};
        Plans.withInputs(p, in -> {
            n[0] += size(in);
            return in;
        });
        return n[0];
    }
}
