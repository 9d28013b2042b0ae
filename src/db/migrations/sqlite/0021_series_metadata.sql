CREATE TABLE `series_metadata_values` (
	`series_id` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`role` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`series_id`, `kind`, `key`, `role`),
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `series_metadata_values_key_idx` ON `series_metadata_values` (`kind`,`key`,`series_id`);--> statement-breakpoint
ALTER TABLE `series` ADD `genres` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `series` ADD `tags` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `series` ADD `authors` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `series` ADD `age_rating` integer;--> statement-breakpoint
ALTER TABLE `series` ADD `language` text;--> statement-breakpoint
ALTER TABLE `series` ADD `status` text;--> statement-breakpoint
ALTER TABLE `series` ADD `links` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Issue 32: what the present books of each series say together, as the settlement now keeps it
-- (src/library/series-settlement.ts): genres, tags and authors of all (one spelling per value
-- ignoring case), the highest age rating, the language of the first book in series order that has one.
UPDATE `series` SET
  `genres` = coalesce((SELECT json_group_array(`v`) FROM (SELECT min(j.value) AS `v` FROM `books` b, json_each(b.`metadata`, '$.genres') j WHERE b.`series_id` = `series`.`id` AND b.`deleted` = 0 GROUP BY lower(j.value) ORDER BY lower(j.value))), '[]'),
  `tags` = coalesce((SELECT json_group_array(`v`) FROM (SELECT min(j.value) AS `v` FROM `books` b, json_each(b.`metadata`, '$.tags') j WHERE b.`series_id` = `series`.`id` AND b.`deleted` = 0 GROUP BY lower(j.value) ORDER BY lower(j.value))), '[]'),
  `authors` = coalesce((SELECT json_group_array(json_object('name', `n`, 'role', `r`)) FROM (SELECT min(json_extract(j.value, '$.name')) AS `n`, json_extract(j.value, '$.role') AS `r` FROM `books` b, json_each(b.`metadata`, '$.authors') j WHERE b.`series_id` = `series`.`id` AND b.`deleted` = 0 GROUP BY lower(json_extract(j.value, '$.name')), json_extract(j.value, '$.role') ORDER BY lower(json_extract(j.value, '$.name')), json_extract(j.value, '$.role'))), '[]'),
  `age_rating` = (SELECT max(json_extract(b.`metadata`, '$.ageRating')) FROM `books` b WHERE b.`series_id` = `series`.`id` AND b.`deleted` = 0),
  `language` = (SELECT json_extract(b.`metadata`, '$.language') FROM `books` b WHERE b.`series_id` = `series`.`id` AND b.`deleted` = 0 AND json_extract(b.`metadata`, '$.language') IS NOT NULL ORDER BY b.`series_position` IS NULL, b.`series_position` LIMIT 1);
--> statement-breakpoint
INSERT INTO `series_metadata_values` (`series_id`, `kind`, `key`, `value`, `role`)
  SELECT s.`id`, 'genre', lower(j.value), j.value, '' FROM `series` s, json_each(s.`genres`) j WHERE true ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO `series_metadata_values` (`series_id`, `kind`, `key`, `value`, `role`)
  SELECT s.`id`, 'tag', lower(j.value), j.value, '' FROM `series` s, json_each(s.`tags`) j WHERE true ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO `series_metadata_values` (`series_id`, `kind`, `key`, `value`, `role`)
  SELECT s.`id`, 'author', lower(json_extract(j.value, '$.name')), json_extract(j.value, '$.name'), coalesce(json_extract(j.value, '$.role'), '') FROM `series` s, json_each(s.`authors`) j WHERE json_extract(j.value, '$.name') IS NOT NULL ON CONFLICT DO NOTHING;
