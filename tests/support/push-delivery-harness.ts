import { afterAll, beforeAll } from 'vitest'
import { startJobs } from '#app/main/jobs.server.ts'
import { startPushEndpoint, type PushEndpoint } from './push-endpoint.ts'

/**
 * What a push delivery test needs for the whole file: a Web Push endpoint that decrypts what it receives, and the
 * app's job queue that delivers to it. Started in beforeAll, stopped in afterAll (the queue first, so no delivery
 * is in flight when the endpoint closes). The handle reads the started endpoint.
 */
export function usePushDelivery(): PushEndpoint {
  let endpoint: PushEndpoint | undefined
  let jobs: Awaited<ReturnType<typeof startJobs>> | undefined
  beforeAll(async () => {
    endpoint = await startPushEndpoint()
    jobs = await startJobs()
  })
  afterAll(async () => {
    await jobs?.stop()
    await endpoint?.close()
  })
  return new Proxy({} as PushEndpoint, {
    get(_target, key) {
      if (!endpoint) throw new Error('The push endpoint starts in beforeAll: use it inside a test or a later hook')
      const value: unknown = Reflect.get(endpoint, key)
      return typeof value === 'function' ? value.bind(endpoint) : value
    },
  })
}
