import { AppError } from '@ingest/contracts';

/**
 * The optimistic check of `ifVersion`: VERSION_CONFLICT when the record is not at the
 * version the event expects. `currentVersion` is the version the check saw (in a run, the
 * one the events before left, not the stored one), an extension of the error so that the
 * receipt and the problem of `Prefer: wait` both carry it. `record`: `article "hello"`.
 */
export function versionConflict(
  record: string,
  ifVersion: number | undefined,
  currentVersion: number,
): AppError | undefined {
  if (ifVersion === undefined || ifVersion === currentVersion) return undefined;
  return new AppError(
    'VERSION_CONFLICT',
    `Your ${record} is at version ${currentVersion}, not ${ifVersion}`,
    { extensions: { currentVersion } },
  );
}
