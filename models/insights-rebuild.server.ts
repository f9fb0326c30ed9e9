import { type Transaction } from 'sequelize'
import { selectRows, withTransaction } from './transaction.server.ts'

/**
 * pass_days made anew in the owner's current time zone (migration 0012's rebuild_pass_days), a chunk of passes at a
 * time. Each chunk is one short transaction: no transaction is held across chunks (the embedded database serves a
 * transaction alone, so a long one would stall every request).
 */

/** The owner's cards, every status (an archived card's figures are still shown and exported). */
export async function listOwnerCardIds(userId: string): Promise<string[]> {
  const rows = await selectRows<{ id: string }>('select id from cards where user_id = :userId order by id', {
    userId,
  })
  return rows.map((row) => row.id)
}

/** Below every uuid: where a card's walk starts. */
const BEFORE_FIRST_PASS = '00000000-0000-0000-0000-000000000000'

/**
 * Rebuilds the pass_days of the card's next `limit` passes after `afterPassId` (in id order). The passes are locked
 * first, so a stamp on one of them either committed before (and is read) or waits and is then recorded by the
 * trigger in the new zone; the rebuild's statement starts after the lock is granted and so sees what committed.
 * Answers how many passes it rebuilt and the last one's id (null when the card has no passes after afterPassId).
 */
export async function rebuildPassDaysChunk({
  cardId,
  afterPassId,
  limit,
}: {
  cardId: string
  afterPassId: string | null
  limit: number
}): Promise<{ passes: number; lastPassId: string | null }> {
  return withTransaction(async (transaction) => {
    const locked = await selectRows<{ id: string }>(
      `select id from passes where card_id = :cardId and id > cast(:afterPassId as uuid) order by id limit :limit for update`,
      { cardId, afterPassId: afterPassId ?? BEFORE_FIRST_PASS, limit },
      transaction,
    )
    const ids = locked.map((row) => row.id)
    if (!ids.length) return { passes: 0, lastPassId: null }
    await rebuild(cardId, `{${ids.join(',')}}`, transaction)
    return { passes: ids.length, lastPassId: ids[ids.length - 1]! }
  })
}

/**
 * Rebuilds the card's rows of removed holders (pass_id null). Its rows have no pass to lock, so two rebuilds of one
 * card (a change of zone during a rebuild starts another) take turns on the card's row: otherwise the second's
 * delete, blocked by the first, would miss the first's new rows and both sets would stay. A row lock, not an advisory
 * lock (the embedded database has one backend), and 'no key update', which stamps on the card (their foreign key
 * takes 'key share') do not wait for.
 */
export async function rebuildRemovedHoldersPassDays(cardId: string): Promise<void> {
  await withTransaction(async (transaction) => {
    await selectRows('select id from cards where id = :cardId for no key update', { cardId }, transaction)
    await rebuild(cardId, null, transaction)
  })
}

/**
 * Counts the card's new holders per day again in the owner's current zone (migration 0022's rebuild_card_joins). The
 * card's row is held 'for update': a pass being added holds 'key share' on it (its foreign key) until it commits, so
 * the count waits for those, and passes added meanwhile wait for the count (a hundred milliseconds at 100,000
 * holders); none is missed or counted twice.
 */
export async function rebuildCardJoins(cardId: string): Promise<void> {
  await withTransaction(async (transaction) => {
    await selectRows('select id from cards where id = :cardId for update', { cardId }, transaction)
    await selectRows('select rebuild_card_joins(cast(:cardId as uuid)) as done', { cardId }, transaction)
  })
}

function rebuild(cardId: string, passIds: string | null, transaction: Transaction) {
  return selectRows(
    'select rebuild_pass_days(cast(:cardId as uuid), cast(:passIds as uuid[])) as done',
    { cardId, passIds },
    transaction,
  )
}
