import { useNavigation } from '@remix-run/react'
import { type ReactNode } from 'react'

/**
 * The submit button of one of several forms on a page, each posting its own `intent` (a hidden field of the form).
 * It shows its pending label only while its own form is being sent, and ignores clicks meanwhile (aria-disabled,
 * not disabled, so it stays focusable and announced). `disabled` is for a form that cannot succeed now (a Send that
 * reaches nobody): the page says why beside it.
 */
export function IntentButton({
  intent,
  pendingLabel,
  danger,
  disabled,
  className = danger ? 'button button--danger' : 'button',
  children,
}: {
  intent: string
  pendingLabel: string
  danger?: boolean
  disabled?: boolean
  className?: string
  children: ReactNode
}) {
  const navigation = useNavigation()
  const pending = navigation.state !== 'idle' && navigation.formData?.get('intent') === intent
  return (
    <button
      type="submit"
      className={className}
      disabled={disabled}
      aria-disabled={pending || undefined}
      onClick={(event) => {
        if (pending) event.preventDefault()
      }}
    >
      {pending ? pendingLabel : children}
    </button>
  )
}
