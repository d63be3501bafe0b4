export interface UniqueViolation {
  /** Columns of the violated constraint, when the driver reports them. */
  fields: string[];
  /** Name of the violated unique index, when the driver reports it instead. */
  index: string | undefined;
}

/**
 * What a write that broke a unique constraint collided on, or undefined when `error` is
 * not a unique violation. Prisma reports P2002; through the pg driver adapter the detail
 * sits in the adapter's error (often only the index name) rather than in `meta.target`.
 */
export function uniqueViolationOf(error: unknown): UniqueViolation | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, meta } = error as { code?: unknown; meta?: Record<string, unknown> };
  if (code !== 'P2002') return undefined;
  const constraint = (
    meta?.driverAdapterError as
      { cause?: { constraint?: { fields?: unknown; index?: unknown } } } | undefined
  )?.cause?.constraint;
  const fields = Array.isArray(meta?.target) ? meta.target : constraint?.fields;
  return {
    fields: Array.isArray(fields) ? fields.map(String) : [],
    index: typeof constraint?.index === 'string' ? constraint.index : undefined,
  };
}

/** Whether the violation is of the unique index Prisma names `<table>_<column>_key`. */
export const violatesUniqueColumn = (
  violation: UniqueViolation,
  table: string,
  column: string,
): boolean => violation.fields.includes(column) || violation.index === `${table}_${column}_key`;
