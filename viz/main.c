/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include "viz.h"

int main(int argc, char **argv)
{
    return viz_main(argc, argv);
}
