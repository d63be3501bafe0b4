import { readingMinutes } from '@ingest/events';
// The expected state: a single, in-order replay of the accepted events through a tiny
// in-memory model of the processors. Whatever faults happened, the database must end
// exactly as this replay does, and each event must end with the outcome it gives.

const READ_MINUTES_MAX = 600; // CONTENT_READ_MINUTES_MAX's default, which the suite keeps

export interface ModelArticle {
  title: string;
  body: string[];
  excerpt: string | null;
  cover: string | null;
  /** The category's key (trimmed, lower case): its display spelling is first-use-wins. */
  category: string | null;
  readMinutes: number;
  readMinutesComputed: boolean;
  /** Bumped on each create: a highlight stays linked only to the article it was made for. */
  generation: number;
}

export interface ModelHighlight {
  title: string;
  articleSlug: string | null;
  generation: number | null;
}

export type ModelOutcome = { status: 'succeeded' } | { status: 'failed'; code: string };

type Data = Record<string, unknown>;

const categoryKey = (value: unknown): string | null =>
  typeof value === 'string' ? value.trim().toLowerCase() : null;

export class ReplayModel {
  readonly articles = new Map<string, ModelArticle>();
  readonly highlights: ModelHighlight[] = [];
  private generations = 0;

  apply(event: string | null, data: Data): ModelOutcome {
    switch (event) {
      case 'article.create':
        return this.create(data);
      case 'article.update':
        return this.update(data);
      case 'article.delete':
        return this.remove(data);
      case 'highlight.create':
        return this.highlight(data);
      default:
        return { status: 'failed', code: 'UNKNOWN_EVENT' };
    }
  }

  /** The slug a highlight should still be linked to, or null (never linked, or unlinked by a delete). */
  linkOf(highlight: ModelHighlight): string | null {
    if (highlight.articleSlug === null) return null;
    const article = this.articles.get(highlight.articleSlug);
    return article?.generation === highlight.generation ? highlight.articleSlug : null;
  }

  private create(data: Data): ModelOutcome {
    const slug = data.slug as string;
    if (this.articles.has(slug)) return { status: 'failed', code: 'SLUG_TAKEN' };
    const body = data.body as string[];
    const given = data.readMinutes as number | undefined;
    this.generations += 1;
    this.articles.set(slug, {
      title: data.title as string,
      body,
      excerpt: (data.excerpt as string | undefined) ?? null,
      cover: (data.cover as string | undefined) ?? null,
      category: categoryKey(data.category),
      readMinutes: given ?? readingMinutes(body, READ_MINUTES_MAX),
      readMinutesComputed: given === undefined,
      generation: this.generations,
    });
    return { status: 'succeeded' };
  }

  private update(data: Data): ModelOutcome {
    const article = this.articles.get(data.slug as string);
    if (article === undefined) return { status: 'failed', code: 'ARTICLE_NOT_FOUND' };
    if (data.newSlug !== undefined) throw new Error('the workload sends no renames');
    if (data.title !== undefined) article.title = data.title as string;
    if (data.body !== undefined) article.body = data.body as string[];
    if (data.excerpt !== undefined) article.excerpt = data.excerpt as string | null;
    if (data.cover !== undefined) article.cover = data.cover as string | null;
    if (data.category !== undefined) article.category = categoryKey(data.category);
    // As README says: a number fixes readMinutes, null computes it again, and a computed
    // value follows later body changes.
    if (data.readMinutes !== undefined) article.readMinutesComputed = data.readMinutes === null;
    article.readMinutes = article.readMinutesComputed
      ? readingMinutes(article.body, READ_MINUTES_MAX)
      : ((data.readMinutes as number | undefined) ?? article.readMinutes);
    return { status: 'succeeded' };
  }

  private remove(data: Data): ModelOutcome {
    const slug = data.slug as string;
    if (!this.articles.delete(slug)) return { status: 'failed', code: 'ARTICLE_NOT_FOUND' };
    return { status: 'succeeded' };
  }

  private highlight(data: Data): ModelOutcome {
    const slug = (data.articleSlug as string | undefined) ?? null;
    const article = slug === null ? undefined : this.articles.get(slug);
    if (slug !== null && article === undefined) {
      return { status: 'failed', code: 'ARTICLE_NOT_FOUND' };
    }
    this.highlights.push({
      title: data.title as string,
      articleSlug: slug,
      generation: article?.generation ?? null,
    });
    return { status: 'succeeded' };
  }
}
