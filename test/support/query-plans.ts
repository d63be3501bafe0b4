/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, with the fields the tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  /** Present under EXPLAIN ANALYZE. */
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan, the root first. */
export const nodesOf = (node: PlanNode): PlanNode[] => [
  node,
  ...(node.Plans ?? []).flatMap(nodesOf),
];

/**
 * A partition's relation or index name as its parent's: `webhook_logs_p20261123` and
 * `webhook_logs_p20261123_received_at_id_idx` read as `webhook_logs` and
 * `webhook_logs_received_at_id_idx` (partitions name their indexes after their parents').
 */
export const unpartitioned = (name: string): string =>
  name.replace(
    /^(webhook_logs|event_attempts)_(?:p\d{8,10}|r(?:\d{8,10}|legacy)|legacy)(?=_|$)/,
    '$1',
  );
