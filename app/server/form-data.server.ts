/**
 * The action's form, or an empty one when the body is no form at all (JSON, plain text, no Content-Type, a broken
 * multipart body): request.formData() throws on those, which answered 500. An empty form gets the schema's own
 * messages with 400, the answer an empty submission gets.
 */
export function readFormData(request: Request): Promise<FormData> {
  return request.formData().catch(() => new FormData())
}
