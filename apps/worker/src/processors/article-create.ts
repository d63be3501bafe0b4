import { AppError } from '@ingest/contracts';
import { readingMinutes, slugFromTitle } from '@ingest/domain';
import { v7 as uuidv7 } from 'uuid';
import { categoryIdFor } from './categories.js';
import type { Processor } from './processor.js';
import { insertWithFreeSlug } from './slug-allocation.js';

export const createArticle: Processor<'article.create'> = async ({
  tx,
  accountId,
  data,
  limits,
}) => {
  const id = uuidv7();
  const categoryId = data.category === undefined ? null : await categoryIdFor(tx, data.category);
  const insert = async (slug: string): Promise<boolean> => {
    const { count } = await tx.article.createMany({
      data: {
        id,
        slug,
        accountId,
        title: data.title,
        excerpt: data.excerpt ?? null,
        body: data.body,
        cover: data.cover ?? null,
        categoryId,
        readMinutes: data.readMinutes ?? readingMinutes(data.body, limits.readMinutesMax),
        readMinutesComputed: data.readMinutes === undefined,
      },
      // ON CONFLICT DO NOTHING: a taken slug is an answer, not an aborted transaction.
      skipDuplicates: true,
    });
    return count === 1;
  };

  if (data.slug !== undefined) {
    if (!(await insert(data.slug))) {
      throw new AppError('SLUG_TAKEN', `The slug "${data.slug}" is already taken`);
    }
    return { type: 'article', id, slug: data.slug };
  }
  const slug = await insertWithFreeSlug(tx, slugFromTitle(data.title), insert);
  return { type: 'article', id, slug };
};
