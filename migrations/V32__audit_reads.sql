-- Reading the trail at a million entries (docs/audit.md#reading-the-trail).
--
-- A page without a record or user filter is read as one ordered stream per business the
-- reader may see, plus their own entries without a business, merged newest first: each
-- stream an index read in order, so a reader whose entries are few and old (an
-- accountant of one closed shop, a manager's own sign-ins) no longer walks the whole
-- trail. A date range reads each stream by time, and a user's changes by time too.
--
-- The owner indexes served only the old walk; the entity-less entries (sign-ins, records
-- without a business) get small partial indexes instead.
DROP INDEX audit_log_owner;
DROP INDEX audit_log_owner_at;
CREATE INDEX audit_log_entity_at ON audit_log(entity_id, at);
CREATE INDEX audit_log_user_at ON audit_log(user_id, at);
CREATE INDEX audit_log_unfiled ON audit_log(owner_id, id) WHERE entity_id IS NULL;
CREATE INDEX audit_log_unfiled_at ON audit_log(owner_id, at) WHERE entity_id IS NULL;
