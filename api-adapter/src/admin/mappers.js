'use strict'

// Database rows → central-ledger response shapes. isActive is 1 or 0 as
// central-ledger returns it; amounts are canonical decimal strings (amounts.js).

const { toApiAmount } = require('./amounts')

/**
 * @typedef {{ participant_id: number, name: string, is_active: number, created_at: Date }} ParticipantRow
 * @typedef {{ account_id: number, participant_id: number, currency: string, ledger_account_type: string,
 *   is_active: number, created_at: Date }} AccountRow
 * @typedef {AccountRow & { value: string, updated_at: Date }} BalanceRow
 * @typedef {{ currency: string, limit_type: string, value: string }} LimitRow
 */

/**
 * @param {ParticipantRow} participant
 * @param {AccountRow[]} accounts the participant's accounts
 * @param {string} baseUrl e.g. "http://admin.hub:3002"
 */
function toParticipant (participant, accounts, baseUrl) {
  const link = `${baseUrl}/participants/${encodeURIComponent(participant.name)}`
  return {
    name: participant.name,
    id: link,
    created: participant.created_at,
    isActive: participant.is_active ? 1 : 0,
    links: { self: link },
    accounts: accounts.map((account) => ({
      id: account.account_id,
      ledgerAccountType: account.ledger_account_type,
      currency: account.currency,
      isActive: account.is_active ? 1 : 0,
      createdDate: account.created_at
    }))
  }
}

/** @param {BalanceRow} row */
function toAccountBalance (row) {
  return {
    id: row.account_id,
    ledgerAccountType: row.ledger_account_type,
    currency: row.currency,
    isActive: row.is_active ? 1 : 0,
    value: toApiAmount(row.value),
    // Reservations are part of a POSITION account's value (docs/transfers.md),
    // so nothing is ever held apart from it.
    reservedValue: '0',
    changedDate: row.updated_at
  }
}

/** @param {BalanceRow} row */
function toPosition (row) {
  return { currency: row.currency, value: toApiAmount(row.value), changedDate: row.updated_at }
}

/** @param {LimitRow} row */
function toLimit (row) {
  return { currency: row.currency, limit: { type: row.limit_type, value: toApiAmount(row.value) } }
}

module.exports = { toParticipant, toAccountBalance, toPosition, toLimit }
