-- mmuscope schema 11: the huge pages a phase split, by size.
--
-- pages_split is their sum; a 1G page split gives 512 2M leaves, each of
-- which a later split may turn into 512 4K ones.  A phase analyzed before
-- this step does not know them (NULL), and its capture's analysis starts
-- over at the next `mmuscope analyze` (its resume state is dropped).

ALTER TABLE phase ADD COLUMN pages_split_2m INTEGER;
ALTER TABLE phase ADD COLUMN pages_split_1g INTEGER;
UPDATE analysis SET state = NULL;
