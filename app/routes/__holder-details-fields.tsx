import { type SubmissionResult } from '@conform-to/react'
import { MONTHS, type HolderField } from '#app/utils/holder-details.ts'

/**
 * The fields a card asks its holders (issue 34), as plain inputs inside a form of the join page or the pass: they
 * load no script (the holder's pages stay small) and their errors come from the server, with what was typed kept.
 * Every field is optional, and says so.
 */
export type HolderAsk = { fields: HolderField[]; privacyNote: string }

type Values = Partial<Record<'name' | 'email' | 'phone' | 'birthDay' | 'birthMonth', string>>

export function HolderDetailsFields({
  ask,
  lastResult,
  values = {},
  idPrefix = 'holder',
}: {
  ask: HolderAsk
  lastResult?: SubmissionResult<string[]>
  values?: Values
  idPrefix?: string
}) {
  const typed = { ...values, ...(lastResult?.initialValue as Values | undefined) }
  const errors = lastResult?.error ?? {}
  const id = (name: string) => `${idPrefix}-${name}`
  const described = (name: string) => (errors[name]?.length ? `${id(name)}-error` : undefined)
  const error = (name: string) =>
    errors[name]?.length ? (
      <p id={`${id(name)}-error`} className="holder-field__error field-error">
        {errors[name]!.join(' ')}
      </p>
    ) : null
  const text = (name: 'name' | 'email' | 'phone', label: string, type: string, autoComplete: string) => (
    <div className="holder-field">
      <label htmlFor={id(name)}>
        {label} <span className="holder-field__optional">(optional)</span>
      </label>
      <input
        id={id(name)}
        name={name}
        type={type}
        autoComplete={autoComplete}
        defaultValue={typed[name] ?? ''}
        maxLength={name === 'name' ? 80 : 254}
        aria-invalid={described(name) ? true : undefined}
        aria-describedby={described(name)}
      />
      {error(name)}
    </div>
  )
  return (
    <div className="holder-fields">
      {ask.fields.includes('name') ? text('name', 'Your name', 'text', 'name') : null}
      {ask.fields.includes('email') ? text('email', 'E-mail', 'email', 'email') : null}
      {ask.fields.includes('phone') ? text('phone', 'Phone', 'tel', 'tel') : null}
      {ask.fields.includes('birthday') ? (
        <fieldset className="holder-field holder-field--birthday">
          <legend>
            Birthday <span className="holder-field__optional">(optional: day and month)</span>
          </legend>
          <label htmlFor={id('birthDay')} className="visually-hidden">
            Day
          </label>
          <select
            id={id('birthDay')}
            name="birthDay"
            defaultValue={typed.birthDay ?? ''}
            aria-invalid={described('birthDay') ? true : undefined}
            aria-describedby={described('birthDay')}
          >
            <DayOptions />
          </select>
          <label htmlFor={id('birthMonth')} className="visually-hidden">
            Month
          </label>
          <select
            id={id('birthMonth')}
            name="birthMonth"
            defaultValue={typed.birthMonth ?? ''}
            aria-invalid={described('birthMonth') ? true : undefined}
            aria-describedby={described('birthMonth')}
          >
            <MonthOptions />
          </select>
          {error('birthDay')}
          {error('birthMonth')}
        </fieldset>
      ) : null}
      {ask.privacyNote ? <p className="holder-fields__privacy">{ask.privacyNote}</p> : null}
    </div>
  )
}

/** A birthday's day and month as select options, with an empty first choice (no birthday). */
export function DayOptions() {
  return (
    <>
      <option value="">Day</option>
      {Array.from({ length: 31 }, (_, index) => (
        <option key={index} value={String(index + 1)}>
          {index + 1}
        </option>
      ))}
    </>
  )
}

export function MonthOptions() {
  return (
    <>
      <option value="">Month</option>
      {MONTHS.map((month, index) => (
        <option key={month} value={String(index + 1)}>
          {month}
        </option>
      ))}
    </>
  )
}
