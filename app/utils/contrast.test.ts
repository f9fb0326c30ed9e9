import { describe, expect, test } from 'vitest'
import { contrastRatio, contrastWarning, hexToRgb, isHardToRead, relativeLuminance } from './contrast.ts'

describe('contrast', () => {
  test('reads #rrggbb in either case and refuses anything else', () => {
    expect(hexToRgb('#1f3a5F')).toEqual([0x1f, 0x3a, 0x5f])
    expect(hexToRgb('#fff')).toBeNull()
    expect(hexToRgb('red')).toBeNull()
  })

  test('luminance runs from black to white', () => {
    expect(relativeLuminance([0, 0, 0])).toBe(0)
    expect(relativeLuminance([255, 255, 255])).toBeCloseTo(1, 10)
  })

  test('matches the WCAG reference values', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5)
    expect(contrastRatio('#ffffff', '#ffffff')).toBeCloseTo(1, 5)
    // Order does not matter.
    expect(contrastRatio('#ffffff', '#777777')).toBeCloseTo(contrastRatio('#777777', '#ffffff')!, 10)
    // Well-known pairs: #777 on white is 4.48:1, #767676 on white 4.54:1 (the lightest AA grey).
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2)
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2)
    expect(contrastRatio('#nothex', '#ffffff')).toBeNull()
  })

  test('warns below 4.5:1 only', () => {
    expect(isHardToRead('#ffffff', '#777777')).toBe(true)
    expect(isHardToRead('#ffffff', '#767676')).toBe(false)
    expect(isHardToRead('#1f3a5f', '#ffffff')).toBe(false)
    expect(isHardToRead('#ffff00', '#ffffff')).toBe(true)
    expect(isHardToRead('#ff0000', '#00ff00')).toBe(true)
    expect(isHardToRead('bad', '#ffffff')).toBe(false)
  })

  test('the warning names the ratio, floored, and stays silent for readable or unknown colours', () => {
    expect(contrastWarning('#ffffff', '#ffee00')).toBe(
      'Your text may be hard to read on this background: contrast 1.2:1, and 4.5:1 or more is easy to read.',
    )
    // #777 on white is 4.48:1: shown as 4.4, never rounded up to the minimum.
    expect(contrastWarning('#ffffff', '#777777')).toContain('contrast 4.4:1')
    expect(contrastWarning('#ffffff', '#767676')).toBeNull()
    expect(contrastWarning('#1f3a5f', '#ffffff')).toBeNull()
    expect(contrastWarning('#ffffff', 'yellow')).toBeNull()
  })
})
