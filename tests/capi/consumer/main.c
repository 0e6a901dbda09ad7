#include <stdio.h>

#include <lfbloom.h>

int main(void) {
    lfb_filter* f = NULL;
    if (lfb_filter_create(1000, 0.01, NULL, &f) != LFB_OK) return 1;
    lfb_filter_add(f, "installed", 9);
    const int ok = lfb_filter_contains(f, "installed", 9) == 1;
    lfb_filter_free(f);
    printf("consumer: lfbloom %s %s\n", lfb_version_string(), ok ? "works" : "FAILED");
    return ok ? 0 : 1;
}
