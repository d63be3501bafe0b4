// Schemas of the public read endpoints (GET /api/articles, /api/highlights, /api/categories).
export {};
