/**
 * The app's own services, for browser tests that stand in for an actor without a page yet (an admin confirming a
 * payment, the scheduled job running), on the app server's embedded database through its socket.
 */
export async function appServices() {
  if (!process.env.E2E_DATA_DIR)
    throw new Error('E2E_DATA_DIR is not set: run the browser tests through playwright.config.ts')
  process.env.DATA_DIR = process.env.E2E_DATA_DIR
  delete process.env.DATABASE_URL
  process.env.LOG_LEVEL ??= 'silent'
  const [billing, housekeeping, invoices, db] = await Promise.all([
    import('#app/services/billing/billing.server.ts'),
    import('#app/services/billing/plan-housekeeping.server.ts'),
    import('#models/invoice.server.ts'),
    import('#app/server/db.server.ts'),
  ])
  return {
    confirmPayment: billing.confirmPayment,
    runPlanHousekeeping: housekeeping.runPlanHousekeeping,
    getOpenInvoiceForUser: invoices.getOpenInvoiceForUser,
    close: () => db.getSequelize().close(),
  }
}
