import { useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type z } from 'zod'

/**
 * Every form's conform set-up in one place: the server's last answer, the schema's constraints for the browser,
 * validation with the same schema (and so the same messages) on blur, re-validated on input so an error clears
 * as soon as the field is edited.
 */
export function useSchemaForm<Schema extends z.ZodType<Record<string, unknown>, Record<string, unknown>>>(
  schema: Schema,
  { id, lastResult }: { id: string; lastResult: SubmissionResult<string[]> | null | undefined },
) {
  return useForm<z.input<Schema>, z.output<Schema>>({
    id,
    lastResult,
    constraint: getZodConstraint(schema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
}
