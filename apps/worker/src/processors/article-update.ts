import { AppError } from '@ingest/contracts';
import { uniqueViolationOf, violatesUniqueColumn } from '@ingest/db';
import { readingMinutes } from '@ingest/domain';
import type { EventProcessor } from './catalog.js';
import { categoryIdFor } from './categories.js';
import { findOwnArticle } from './find-own-article.js';

export const articleUpdate: EventProcessor<'article.update'> = {
  async apply(tx, { accountId, data, limits }) {
    const article = await findOwnArticle(tx, accountId, data.slug);
    const body = data.body ?? article.body;

    // readMinutes: a number fixes it, null goes back to computing it, and a computed one
    // follows the body.
    const computed =
      data.readMinutes === undefined ? article.readMinutesComputed : data.readMinutes === null;
    const readMinutes = computed
      ? readingMinutes(body, limits.readMinutesMax)
      : (data.readMinutes ?? article.readMinutes);

    const slug = data.newSlug ?? article.slug;
    try {
      await tx.article.update({
        where: { id: article.id },
        data: {
          slug,
          ...(data.title === undefined ? {} : { title: data.title }),
          ...(data.body === undefined ? {} : { body: data.body }),
          ...(data.excerpt === undefined ? {} : { excerpt: data.excerpt }),
          ...(data.cover === undefined ? {} : { cover: data.cover }),
          ...(data.category === undefined
            ? {}
            : {
                categoryId: data.category === null ? null : await categoryIdFor(tx, data.category),
              }),
          readMinutes,
          readMinutesComputed: computed,
          updatedAt: new Date(),
        },
      });
    } catch (error) {
      const violation = uniqueViolationOf(error);
      if (violation !== undefined && violatesUniqueColumn(violation, 'articles', 'slug')) {
        throw new AppError('SLUG_TAKEN', `The slug "${slug}" is already taken`, { cause: error });
      }
      throw error;
    }
    return { type: 'article', id: article.id, slug };
  },
};
