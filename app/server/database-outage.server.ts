import { ConnectionError } from 'sequelize'

/*
 * While the database cannot be reached, Stampwise answers 503 with Retry-After (not 500): the request was fine, the
 * service is briefly unavailable, and a proxy or a browser may try again. Nothing is half-written: every change runs
 * in one statement or one transaction, which the database rolls back when its connection is lost.
 */

// Node's socket errors and PostgreSQL's "connection exception" (08xxx) and "operator intervention" (57P0x) codes.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'])
const CONNECTION_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Connection is closed|connection timeout|Client has encountered a connection error|Client was closed/i

/** True when `error` (or what it wraps) says the database could not be reached, not that a statement was wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    if (current instanceof ConnectionError) return true
    const { code, message } = current as { code?: unknown; message?: unknown }
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || /^(08|57P0)/.test(code))) return true
    if (typeof message === 'string' && CONNECTION_MESSAGE.test(message)) return true
    const wrapper = current as { original?: unknown; parent?: unknown; cause?: unknown }
    current = wrapper.original ?? wrapper.parent ?? wrapper.cause
  }
  return false
}

/**
 * Seconds a client should wait before trying again: the pool reconnects on the next request once the database is
 * back.
 */
export const RETRY_AFTER_SECONDS = 5

export const UNAVAILABLE_MESSAGE = 'Stampwise cannot reach its database right now. Please try again in a moment.'
