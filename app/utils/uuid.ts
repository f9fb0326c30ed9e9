const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A record id from an address or a form is checked before it reaches a uuid column (else PostgreSQL errors: 500). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value)
