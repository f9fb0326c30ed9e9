import { type FieldMetadata } from '@conform-to/react'
import { singleSelectProps } from '#app/utils/select-props.ts'
import { FieldErrors } from './forms.tsx'

/**
 * A labelled select of a conform form (the admin's user filters, the holders list's filter and order), with its
 * errors under it; `anyLabel` adds a first option with no value ('Any plan').
 */
export function SelectField({
  meta,
  label,
  anyLabel,
  options,
}: {
  meta: FieldMetadata<string | undefined, Record<string, unknown>, string[]>
  label: string
  anyLabel?: string
  options: readonly (readonly [string, string])[]
}) {
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <select {...singleSelectProps(meta)} key={meta.key}>
        {anyLabel ? <option value="">{anyLabel}</option> : null}
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  )
}
