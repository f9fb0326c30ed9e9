/**
 * A field people never see and bots fill in. Public forms render it and their actions call isHoneypotFilled: a
 * filled honeypot gets the usual success answer, so the bot learns nothing, but the submission is thrown away.
 */
export const HONEYPOT_FIELD_NAME = 'website'

export function HoneypotField() {
  return (
    <div className="honeypot" aria-hidden="true">
      <label htmlFor="honeypot-website">Leave this field empty</label>
      <input id="honeypot-website" name={HONEYPOT_FIELD_NAME} type="text" tabIndex={-1} autoComplete="off" />
    </div>
  )
}

export function isHoneypotFilled(formData: FormData) {
  const value = formData.get(HONEYPOT_FIELD_NAME)
  return typeof value === 'string' && value.trim() !== ''
}
