import { AppError } from '@ingest/contracts';

/**
 * The optimistic check of `ifVersion`: VERSION_CONFLICT when the event expects a version
 * the record is not at, undefined when it may apply. `currentVersion` is the version the
 * check saw, which in a run is the one the events before it left, not the stored one. It
 * travels as an extension of the error, so that the receipt and the problem of `Prefer:
 * wait` both carry it. `record` names what was addressed: `article "hello"`.
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
