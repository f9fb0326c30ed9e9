import fs from 'node:fs'
import { createRequire } from 'node:module'
import ts from 'typescript'

/**
 * Google Wallet's request bodies checked as Google's JSON parser checks them, for the fake (google-wallet-fake.ts).
 * The fields come from Google's published typings (@maxim_mazurok/gapi.client.walletobjects-v1, generated from the
 * API's discovery document), read once with the TypeScript compiler: a field the resource does not declare, or a
 * value of the wrong JSON type, is refused with Google's wording. The typings call every enum a string, so the few
 * enums the app sends are listed here, with the aliases Google accepts (`ACTIVE` or `active`).
 */

export type FieldType = 'string' | 'number' | 'boolean' | 'any' | { array: FieldType } | { message: string }
export type Schema = Map<string, Map<string, FieldType>>

const TYPINGS = '@maxim_mazurok/gapi.client.walletobjects-v1/index.d.ts'

let schema: Schema | undefined

/** Interface name → field → type, for every data interface of `gapi.client.walletobjects`. */
export function walletSchema(): Schema {
  schema ??= readSchema(fs.readFileSync(createRequire(import.meta.url).resolve(TYPINGS), 'utf8'))
  return schema
}

function readSchema(text: string): Schema {
  const file = ts.createSourceFile('index.d.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found: Schema = new Map()
  const visit = (node: ts.Node, namespace: string): void => {
    if (ts.isModuleDeclaration(node)) {
      const name = namespace ? `${namespace}.${node.name.getText(file)}` : node.name.getText(file)
      // `namespace gapi.client` is a declaration `gapi` whose body is the declaration `client`.
      if (node.body) visit(node.body, name)
      return
    }
    if (ts.isModuleBlock(node)) {
      ts.forEachChild(node, (child) => visit(child, namespace))
      return
    }
    if (namespace !== 'gapi.client.walletobjects' || !ts.isInterfaceDeclaration(node)) return
    // The *Resource interfaces hold the client's methods, not data.
    if (!node.members.every(ts.isPropertySignature)) return
    const fields = new Map<string, FieldType>()
    for (const member of node.members as ts.NodeArray<ts.PropertySignature>) {
      fields.set(member.name.getText(file), member.type ? fieldType(member.type, file) : 'any')
    }
    found.set(node.name.text, fields)
  }
  ts.forEachChild(file, (node) => visit(node, ''))
  if (!found.get('LoyaltyObject')?.has('loyaltyPoints')) throw new Error(`${TYPINGS}: no LoyaltyObject found`)
  return found
}

function fieldType(node: ts.TypeNode, file: ts.SourceFile): FieldType {
  if (node.kind === ts.SyntaxKind.StringKeyword) return 'string'
  if (node.kind === ts.SyntaxKind.NumberKeyword) return 'number'
  if (node.kind === ts.SyntaxKind.BooleanKeyword) return 'boolean'
  if (ts.isArrayTypeNode(node)) return { array: fieldType(node.elementType, file) }
  if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) return { message: node.typeName.text }
  return 'any'
}

/** Enum fields the app sends: each value Google accepts, mapped to the name Google answers with. */
const ENUMS: Record<string, Record<string, string>> = {
  'LoyaltyObject.state': aliases(['STATE_UNSPECIFIED', 'ACTIVE', 'COMPLETED', 'EXPIRED', 'INACTIVE']),
  'LoyaltyClass.reviewStatus': aliases(['REVIEW_STATUS_UNSPECIFIED', 'UNDER_REVIEW', 'APPROVED', 'REJECTED', 'DRAFT']),
  'Message.messageType': aliases(['MESSAGE_TYPE_UNSPECIFIED', 'TEXT', 'EXPIRATION_NOTIFICATION', 'TEXT_AND_NOTIFY']),
  'LoyaltyObject.notifyPreference': aliases(['NOTIFICATION_SETTINGS_FOR_UPDATES_UNSPECIFIED', 'NOTIFY_ON_UPDATE']),
  'LoyaltyClass.notifyPreference': aliases(['NOTIFICATION_SETTINGS_FOR_UPDATES_UNSPECIFIED', 'NOTIFY_ON_UPDATE']),
  'Barcode.type': aliases(
    ['BARCODE_TYPE_UNSPECIFIED', 'AZTEC', 'CODE_39', 'CODE_128', 'CODABAR', 'DATA_MATRIX', 'EAN_8', 'EAN_13'].concat([
      'ITF_14',
      'PDF_417',
      'QR_CODE',
      'UPC_A',
      'TEXT_ONLY',
    ]),
  ),
  'Barcode.renderEncoding': aliases(['RENDER_ENCODING_UNSPECIFIED', 'UTF_8']),
}

/** `QR_CODE` is also accepted as `qrCode` (Google's lower camel aliases, except for the UNSPECIFIED ones). */
function aliases(names: string[]): Record<string, string> {
  const map: Record<string, string> = {}
  for (const name of names) {
    map[name] = name
    if (!name.endsWith('_UNSPECIFIED') && name !== 'TEXT_AND_NOTIFY' && name !== 'NOTIFY_ON_UPDATE') {
      map[name.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = name
    }
  }
  return map
}

/** Values Google checks beyond their JSON type. */
const FORMATS: Record<string, (value: string) => boolean> = {
  // "#rrggbb" or "#rgb".
  'LoyaltyClass.hexBackgroundColor': (value) => /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(value),
  // "URIs must have a scheme."
  'ImageUri.uri': hasScheme,
  'Uri.uri': hasScheme,
}

function hasScheme(value: string) {
  return /^[a-z][a-z0-9+.-]*:/i.test(value)
}

export type CheckedBody = { errors: string[]; value: Record<string, unknown> }

/**
 * A request body checked against interface `name`: Google's error messages (none when it would accept it), and the
 * body as Google would store it (enums by their canonical name, numbers given as strings as numbers, nested nulls
 * dropped; a top-level null stays, so a patch can clear the field).
 */
export function checkBody(body: unknown, name: string, root = 'resource'): CheckedBody {
  const errors: string[] = []
  if (!isObject(body)) {
    errors.push(`Invalid JSON payload received. Expected an object at '${root}', got ${preview(body)}.`)
    return { errors, value: {} }
  }
  const value = checkMessage(body, name, root, errors, true)
  return { errors, value }
}

function checkMessage(
  body: Record<string, unknown>,
  name: string,
  path: string,
  errors: string[],
  top = false,
): Record<string, unknown> {
  const fields = walletSchema().get(name)
  const out: Record<string, unknown> = {}
  for (const [key, given] of Object.entries(body)) {
    const type = fields?.get(key)
    if (!type) {
      errors.push(`Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`)
      continue
    }
    if (given === null) {
      if (top) out[key] = null
      continue
    }
    const checked = checkValue(given, type, `${name}.${key}`, `${path}.${snakeCase(key)}`, errors)
    if (checked !== undefined) out[key] = checked
  }
  return out
}

function checkValue(given: unknown, type: FieldType, field: string, path: string, errors: string[]): unknown {
  const invalid = (typeName: string) => {
    errors.push(`Invalid value at '${path}' (${typeName}), ${preview(given)}`)
    return undefined
  }
  if (type === 'any') return given
  if (typeof type === 'object' && 'array' in type) {
    if (!Array.isArray(given)) return invalid(`repeated ${typeLabel(type.array)}`)
    return given
      .map((item, index) =>
        item === null ? undefined : checkValue(item, type.array, field, `${path}[${index}]`, errors),
      )
      .filter((item) => item !== undefined)
  }
  if (Array.isArray(given)) {
    errors.push(`Invalid JSON payload received. Proto field is not repeating, cannot start list at '${path}'.`)
    return undefined
  }
  if (typeof type === 'object') {
    if (!isObject(given)) return invalid(typeLabel(type))
    return checkMessage(given, type.message, path, errors)
  }
  if (type === 'boolean') return typeof given === 'boolean' ? given : invalid('TYPE_BOOL')
  // Google's parser takes a number given as a string ("5") too.
  if (type === 'number') {
    if (typeof given === 'number') return given
    if (typeof given === 'string' && given.trim() !== '' && Number.isFinite(Number(given))) return Number(given)
    return invalid('TYPE_DOUBLE')
  }
  if (typeof given !== 'string') return invalid('TYPE_STRING')
  const enumValues = ENUMS[field]
  if (enumValues) {
    const canonical = enumValues[given]
    return canonical ?? invalid(`type.googleapis.com/google.walletobjects.v1.${field.split('.')[1]}`)
  }
  const format = FORMATS[field]
  if (format && !format(given)) return invalid('TYPE_STRING')
  return given
}

function typeLabel(type: FieldType): string {
  if (typeof type === 'string') return `TYPE_${type.toUpperCase()}`
  if ('message' in type) return `type.googleapis.com/google.walletobjects.v1.${type.message}`
  return `repeated ${typeLabel(type.array)}`
}

function snakeCase(name: string) {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
}

function preview(value: unknown) {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
