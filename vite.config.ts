import { vitePlugin as remix } from '@remix-run/dev'
import { flatRoutes } from 'remix-flat-routes'
import { defineConfig } from 'vite'

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

export default defineConfig({
  build: { cssMinify: true, target: 'es2020' },
  server: { hmr: { port: 24679 } },
  plugins: [
    !process.env.VITEST &&
      remix({
        ignoredRouteFiles: ['**/*'],
        serverModuleFormat: 'esm',
        future: {
          v3_fetcherPersist: true,
          v3_relativeSplatPath: true,
          v3_throwAbortReason: true,
          v3_singleFetch: true,
          v3_lazyRouteDiscovery: true,
        },
        routes: async (defineRoutes) =>
          flatRoutes('routes', defineRoutes, {
            ignoredRouteFiles: ['.*', '**/*.css', '**/*.test.{js,jsx,ts,tsx}', '**/__*.*', '**/*.server.*'],
          }),
      }),
  ],
})
