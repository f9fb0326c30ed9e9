import { getSelectProps, type FieldMetadata } from '@conform-to/react'

/**
 * conform's props for a single-choice <select>, less its `key`: a field sent twice (a crafted form) comes back from
 * the server as a list, and React refuses a list as a single select's defaultValue, so only one value is kept.
 */
export function singleSelectProps<Schema>(field: FieldMetadata<Schema>) {
  const { key: _key, defaultValue, ...props } = getSelectProps(field)
  return { ...props, defaultValue: Array.isArray(defaultValue) ? String(defaultValue[0] ?? '') : defaultValue }
}
