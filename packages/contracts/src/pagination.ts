import { z } from 'zod';
import { storableText } from './safe-text.js';

/** `limit` and `cursor`, the query parameters of every paginated list. */
export const PageQueryFields = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: storableText(0, 200)
    .optional()
    .meta({ description: '`nextCursor` of the previous page' }),
};

/** A page of `item`s, newest first, with the cursor of the next page (null on the last). */
export const pageOf = <Item extends z.ZodType>(item: Item) =>
  z.object({
    items: z.array(item),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last' }),
  });
