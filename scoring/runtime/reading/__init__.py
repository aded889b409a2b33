"""Reading what graders are handed: uploads (zip, folder), CSV tables, ids, label cells, solution, submission."""
