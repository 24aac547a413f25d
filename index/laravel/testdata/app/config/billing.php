<?php

return [
    'currency' => env('BILLING_CURRENCY', 'EUR'),
    /*
    | Reminders go out this many days after the due date.
    */
    'reminders' => [
        'days' => [7, 14],
    ],
];
