/**
 * Stripe's request encoding, read back: form fields and query parameters in bracket notation, as the `stripe`
 * package writes them (`recurring[interval]=month`, `lookup_keys[0]=a`; `lookup_keys[]=a` too, as Stripe accepts).
 * Keys that are all indices become arrays. Values stay strings, as Stripe receives them.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue }
export type FormObject = { [key: string]: FormValue }

export function parseStripeForm(text: string): FormObject {
  const root: FormObject = {}
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const [head, ...rest] = rawKey.split('[')
    const path = [head!, ...rest.map((part) => part.replace(/\]$/, ''))]
    let node: Record<string, FormValue> = root
    for (const [index, part] of path.entries()) {
      const last = index === path.length - 1
      const key = part === '' ? String(Object.keys(node).length) : part
      if (last) node[key] = value
      else node = (node[key] ??= {}) as Record<string, FormValue>
    }
  }
  return arraysOf(root) as FormObject
}

function arraysOf(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value
  const keys = Object.keys(value)
  const converted = Object.fromEntries(keys.map((key) => [key, arraysOf(value[key]!)]))
  const indexed = keys.length > 0 && keys.every((key, position) => key === String(position))
  return indexed ? keys.map((key) => converted[key]!) : converted
}
