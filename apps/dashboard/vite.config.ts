import { defineConfig } from 'vite';

// Served by the API under /dashboard/.
export default defineConfig({ base: '/dashboard/', build: { outDir: 'dist', emptyOutDir: true } });
