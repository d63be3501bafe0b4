// The receipts a publisher reads must tell the same story as the ledger: a sample of
// events is read back through GET /api/webhooks/content/:id.
import type { LogRow } from './ledger-queries.js';

export async function checkReceipts(
  baseUrl: string,
  apiKey: string,
  rows: LogRow[],
  sample: number,
): Promise<string[]> {
  const problems: string[] = [];
  const step = Math.max(1, Math.floor(rows.length / sample));
  for (let i = 0; i < rows.length; i += step) {
    const row = rows[i];
    if (row === undefined) continue;
    try {
      const response = await fetch(`${baseUrl}/api/webhooks/content/${row.id}`, {
        headers: { 'x-api-key': apiKey },
        signal: AbortSignal.timeout(5_000),
      });
      const receipt = (await response.json()) as { status?: string; error?: { code?: string } };
      if (response.status !== 200) problems.push(`receipt ${row.id}: HTTP ${response.status}`);
      else if (receipt.status !== row.status || (receipt.error?.code ?? null) !== row.errorCode) {
        problems.push(
          `receipt ${row.id} says ${receipt.status} ${receipt.error?.code ?? ''}, ledger says ${row.status} ${row.errorCode ?? ''}`,
        );
      }
    } catch (error) {
      problems.push(`receipt ${row.id}: ${(error as Error).message}`);
    }
  }
  return problems;
}
