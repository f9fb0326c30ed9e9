import { expect, type Locator, type Page } from '@playwright/test'

/**
 * Keyboard-only driving for the accessibility tests: focus moves with Tab and Shift+Tab only, and at every stop the
 * focused element must show a focus indicator — an outline or a box-shadow that it does not have unfocused.
 * (Synchronous evaluation works in a page without JavaScript, so these run in both projects.)
 */
type FocusStyle = { element: string; focused: string; unfocused: string } | null

/** The focused element's outline and box-shadow, focused and (blurred for a moment) not. */
function readFocusStyle(page: Page): Promise<FocusStyle> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null
    if (!element || element === document.body) return null
    const ring = () => {
      const style = getComputedStyle(element)
      const outline =
        style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0
          ? `outline ${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`
          : ''
      const shadow = style.boxShadow !== 'none' ? `box-shadow ${style.boxShadow}` : ''
      return [outline, shadow].filter(Boolean).join('; ')
    }
    const focused = ring()
    element.blur()
    const unfocused = ring()
    // Focus given back by a script after keyboard use still counts as keyboard focus (:focus-visible).
    element.focus()
    return { element: element.outerHTML.slice(0, 120), focused, unfocused }
  })
}

export async function expectVisibleFocus(page: Page) {
  const style = await readFocusStyle(page)
  expect(style, 'something has focus').not.toBeNull()
  expect(style!.focused, `a focus indicator on ${style!.element}`).not.toBe('')
  expect(style!.focused, `a focus indicator on ${style!.element} that differs from its unfocused look`).not.toBe(
    style!.unfocused,
  )
}

/** Presses Tab (or Shift+Tab) until `target` has focus, checking the focus indicator at every stop on the way. */
export async function tabTo(page: Page, target: Locator, { backwards = false, maxPresses = 150 } = {}) {
  for (let press = 0; press < maxPresses; press++) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab')
    await expectVisibleFocus(page)
    if (await target.evaluate((element) => element === document.activeElement)) return
  }
  throw new Error(`${String(target)} not reached after ${maxPresses} presses of ${backwards ? 'Shift+Tab' : 'Tab'}`)
}

/** Tabs to the field and types into it (it must be empty, or its content is replaced: Ctrl+A first). */
export async function typeInto(
  page: Page,
  field: Locator,
  text: string,
  options: { backwards?: boolean; maxPresses?: number } = {},
) {
  await tabTo(page, field, options)
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.type(text)
  await expect(field).toHaveValue(text)
}
