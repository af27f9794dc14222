'use strict'

// Names and ids compare byte for byte: participant `dfspA` is not `DFSPA`,
// and the hub's name is its name in exactly one spelling. The first migration
// took that from the database's collation, which ensureDatabase() makes
// utf8mb4_bin — but a database that existed before (docker-compose's MySQL
// created it with the server's default, utf8mb4_0900_ai_ci, until it was
// started with utf8mb4_bin; a DBA may too) kept its own, and with a
// case-insensitive one `POST /participants
// {"name": "hub"}` found the hub's row. This converts every table that is not
// binary yet, and the database's default for tables to come. On a database
// that was binary from the start it changes nothing.

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  const [[{ name, collation }]] = await knex.raw(
    'SELECT SCHEMA_NAME AS name, DEFAULT_COLLATION_NAME AS collation FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()')
  if (collation !== 'utf8mb4_bin') await knex.raw('ALTER DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_bin', [name])
  const [tables] = await knex.raw(
    `SELECT DISTINCT t.TABLE_NAME AS name
       FROM information_schema.TABLES t
       LEFT JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME
        AND c.COLLATION_NAME IS NOT NULL AND c.COLLATION_NAME <> 'utf8mb4_bin'
      WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE' AND t.TABLE_NAME NOT LIKE 'knex\\_migrations%'
        AND (t.TABLE_COLLATION <> 'utf8mb4_bin' OR c.COLUMN_NAME IS NOT NULL)
      ORDER BY t.TABLE_NAME`)
  for (const t of tables) await knex.raw('ALTER TABLE ?? CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin', [t.name])
}

/** The collation a database had before is not recorded, so there is nothing to go back to. */
exports.down = async () => {}
