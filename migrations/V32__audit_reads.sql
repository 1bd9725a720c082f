-- Reading the trail at a million entries, and fewer indexes to write with each entry
-- (docs/audit.md#reading-the-trail).
--
-- Every page is read newest first by time (ties by number) from an index that leads
-- with what it is filtered on: the entity, the record or the user, each with `at`. A
-- page without a record or user filter is one such read per entity the reader may see,
-- plus one of their own entries without an entity (a small partial index), merged by
-- SQLite: a reader whose entries are few and old (an accountant of one closed shop, a
-- manager's own sign-ins) no longer walks the whole trail.
--
-- Three indexes replace V28's five (by owner, entity, record and user with the number,
-- and by owner with the time), so each change writes two fewer index pages.
DROP INDEX audit_log_owner;
DROP INDEX audit_log_owner_at;
DROP INDEX audit_log_entity;
DROP INDEX audit_log_record;
DROP INDEX audit_log_user;
CREATE INDEX audit_log_entity_at ON audit_log(entity_id, at);
CREATE INDEX audit_log_record_at ON audit_log(record_id, at);
CREATE INDEX audit_log_user_at ON audit_log(user_id, at);
CREATE INDEX audit_log_unfiled_at ON audit_log(owner_id, at) WHERE entity_id IS NULL;

-- Entries are appended by one statement of the server's (src/db/audit.rs, append_sql)
-- straight into audit_log; the view and its INSTEAD OF trigger, which copied each entry
-- into a temporary table on its way, are gone.
DROP TRIGGER audit_append_insert;
DROP VIEW audit_append;
