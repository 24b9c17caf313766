/**
 * Page-numbered lists of the observability API: `page` (from 1) and `page_size` (default 50, at most
 * 100) in the query; answers `{results, count, next, previous}` where `next`/`previous` are absolute
 * URLs of the neighbouring pages (same query, other `page`) or null.
 */
import { z } from 'zod';
import { queryInt } from '../http/schemas.js';
import type { Page, PageRequest } from './datasets.js';

export const PageQuerySchema = z.object({
  page: queryInt(1, 1),
  page_size: queryInt(50, 1, 100),
  q: z.string().optional(),
});

export interface PaginatedResult<T> { results: T[]; count: number; next: string | null; previous: string | null }

/** The page as answered, with links built from the request's URL. */
export function paginated<T>(requestUrl: string, request: PageRequest, page: Page<T>): PaginatedResult<T> {
  const link = (n: number) => {
    const url = new URL(requestUrl);
    url.searchParams.set('page', String(n));
    return url.toString();
  };
  const last = Math.max(1, Math.ceil(page.count / request.pageSize));
  return {
    results: page.results,
    count: page.count,
    next: request.page < last ? link(request.page + 1) : null,
    previous: request.page > 1 ? link(Math.min(request.page - 1, last)) : null,
  };
}
