<?php

function helper(): int
{
    return 1;
}

return new class extends Migration {
};
