/**
 * A library loaded when it is first needed, not when the process starts. Each one a process imports stays in its
 * memory for good (measured: sharp 30 MiB, passkit-generator 22 MiB, nodemailer 15 MiB), and a process that never
 * draws an image, signs an Apple pass or sends over SMTP should not pay for them (docs/decisions/060-memory.md).
 * The first caller starts the import; later ones share it.
 */
export function loadOnFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined
  return () => {
    loading ??= load().catch((error: unknown) => {
      // A failed import (a missing native build) is tried again next time rather than remembered.
      loading = undefined
      throw error
    })
    return loading
  }
}
