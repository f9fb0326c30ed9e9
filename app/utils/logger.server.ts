import { remember } from '@epic-web/remember'
import pino from 'pino'

/**
 * One structured (JSON) logger for the process; request logs add a request id to every line.
 * Reads process.env directly: it must work even while the configuration is being reported as invalid.
 */
export const logger = remember('logger', () =>
  pino({
    level: process.env.NODE_ENV === 'test' ? 'silent' : (process.env.LOG_LEVEL ?? 'info'),
    base: { pid: process.pid },
    redact: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
  }),
)
