cat;[unknown];[unknown];_dl_map_object;__GI___close_nocancel 1
cat;[unknown];[unknown];_dl_map_object;__GI___read_nocancel 1
cat;[unknown];__GI___close_nocancel 1
cat;[unknown];__read_nocancel 1
