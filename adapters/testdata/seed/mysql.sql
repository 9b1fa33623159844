DROP TABLE IF EXISTS `raw`.`<aside>`;
CREATE TABLE `raw`.`<aside>` (`id` BIGINT, `amount` DOUBLE, `ok` BOOLEAN, `d` DATE, `ts` DATETIME(6), `zip` TEXT);
INSERT INTO `raw`.`<aside>` (`id`, `amount`, `ok`, `d`, `ts`, `zip`) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?);
-- bound: [1 2.5 true 2026-07-01 00:00:00 +0000 UTC 2026-07-01 10:00:00.5 +0000 UTC 00123 2 <nil> false <nil> <nil> it's]
CREATE TABLE IF NOT EXISTS `raw`.`zips` LIKE `raw`.`<aside>`;
DROP TABLE IF EXISTS `raw`.`zips__idemc_old`;
RENAME TABLE `raw`.`zips` TO `raw`.`zips__idemc_old`, `raw`.`<aside>` TO `raw`.`zips`;
DROP TABLE IF EXISTS `raw`.`zips__idemc_old`;
